// Package domain is an in-memory task tracker implementing the generated
// TaskServiceHandler: tasks and one level of subtasks in workflow folders
// (backlog, current, archive), kept per tenant and project root.
package domain

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	tasksv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// APIVersion is reported in every response's metadata.
const APIVersion = "2.0"

// Tracker is the in-memory task store. The zero value is not usable; call New.
type Tracker struct {
	mu       sync.Mutex
	rootBase string
	projects map[string]map[string]*tasksv1.Task // tenant+root -> id -> task
}

var _ tasksv1mcpwrite.TaskServiceHandler = (*Tracker)(nil)

// New returns an empty tracker whose default project for a tenant
// (SessionProject) is rootBase/<tenant>.
func New(rootBase string) *Tracker {
	return &Tracker{rootBase: rootBase, projects: map[string]map[string]*tasksv1.Task{}}
}

// SessionProject is the root_dir ResolveProjectRoot fills in when the
// agent omits it: the session's project, the tenant's directory under the
// tracker's base. The directory itself is never filled in, since it is
// built from the tenant ID and previews show what the server fills.
const SessionProject = "."

// ResolveProjectRoot answers root_dir when the agent omits it:
// SessionProject, once a tenant is established.
func (t *Tracker) ResolveProjectRoot(ctx context.Context, _ proto.Message) (string, error) {
	rc, ok := runtime.RequestContextFrom(ctx)
	if !ok || rc.TenantID == "" {
		return "", status.Error(codes.PermissionDenied, "no tenant established for this session")
	}
	return SessionProject, nil
}

// projectKey is the key of a tenant's project at root; SessionProject
// (and any root that cleans to it) is the tenant's directory under the
// base.
func (t *Tracker) projectKey(tenant, root string) string {
	root = path.Clean(root)
	if root == SessionProject {
		root = path.Join(t.rootBase, tenant)
	}
	return tenant + "\x00" + root
}

// project returns the tasks of one tenant's project; callers hold t.mu.
func (t *Tracker) project(meta *tasksv1.RequestMeta, root string) map[string]*tasksv1.Task {
	key := t.projectKey(meta.GetTenantId(), root)
	p, ok := t.projects[key]
	if !ok {
		p = map[string]*tasksv1.Task{}
		t.projects[key] = p
	}
	return p
}

// TaskCreate stores a new task, or a subtask after its parent's last one.
func (t *Tracker) TaskCreate(_ context.Context, req *tasksv1.TaskCreateRequest) (*tasksv1.TaskCreateResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	if _, dup := p[req.GetId()]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "task %s already exists", req.GetId())
	}
	var warnings []string
	state := req.GetWorkflowState()
	if pid := req.GetParentId(); pid != "" {
		parent, ok := p[pid]
		if !ok {
			return nil, notFound("parent task", pid)
		}
		if parent.GetParentId() != "" {
			return nil, badRequest("parentId", "SUBTASK_NESTING", fmt.Sprintf("task %s is itself a subtask; subtasks cannot have subtasks", pid))
		}
		if parent.GetWorkflowState() == tasksv1.WorkflowState_WORKFLOW_STATE_ARCHIVE {
			return nil, precondition("ARCHIVED_PARENT", pid, fmt.Sprintf("parent task %s is archived; move it out of the archive before adding subtasks", pid))
		}
		if state != parent.GetWorkflowState() {
			warnings = append(warnings, fmt.Sprintf("subtasks live in their parent's folder: workflowState %s was replaced by %s", stateName(state), stateName(parent.GetWorkflowState())))
			state = parent.GetWorkflowState()
		}
	}
	tags, dups := dedupe(req.GetTags())
	if len(dups) > 0 {
		warnings = append(warnings, "duplicate tags removed: "+strings.Join(dups, ", "))
	}
	now := req.GetMeta().GetRequestedAt()
	task := &tasksv1.Task{
		Id:            req.GetId(),
		Title:         strings.TrimSpace(req.GetTitle()),
		Type:          req.GetType(),
		Status:        req.GetStatus(),
		Priority:      req.GetPriority(),
		WorkflowState: state,
		Area:          req.GetArea(),
		ParentId:      req.GetParentId(),
		Assignee:      req.GetAssignee(),
		Tags:          tags,
		Instruction:   req.GetInstruction(),
		Tasks:         req.GetTasks(),
		CreatedAt:     now,
		UpdatedAt:     now,
	}
	if task.ParentId != "" {
		n := lastSequence(p, task.ParentId) + 1
		if n > maxSequence {
			return nil, precondition("SEQUENCE_FULL", task.ParentId, fmt.Sprintf("parent task %s has no sequence left after %02d", task.ParentId, maxSequence))
		}
		task.Sequence = seqString(n)
	}
	task.Path = taskPath(req.GetRootDir(), task, "")
	p[task.Id] = task
	return &tasksv1.TaskCreateResponse{
		Data: &tasksv1.TaskSummary{
			Id: task.Id, Title: task.Title, Type: task.Type, Status: task.Status,
			WorkflowState: task.WorkflowState, Area: task.Area, Path: task.Path, CreatedAt: task.CreatedAt,
		},
		Message:  "Task created successfully",
		Metadata: metadata(now, warnings),
	}, nil
}

// TaskUpdate applies the given changes to a task.
func (t *Tracker) TaskUpdate(_ context.Context, req *tasksv1.TaskUpdateRequest) (*tasksv1.TaskUpdateResponse, error) {
	u := req.GetUpdates()
	if isEmptyUpdate(u) {
		return nil, badRequest("updates", "EMPTY_UPDATE", "updates must change at least one field, e.g. {\"status\":\"in_progress\"}")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	task, err := find(p, req.GetId(), req.GetParentId())
	if err != nil {
		return nil, err
	}
	now := req.GetMeta().GetRequestedAt()
	var warnings []string
	if u.Title != nil {
		task.Title = strings.TrimSpace(u.GetTitle())
	}
	if u.GetStatus() != tasksv1.TaskStatus_TASK_STATUS_UNSPECIFIED {
		task.Status = u.GetStatus()
	}
	if u.GetPriority() != tasksv1.TaskPriority_TASK_PRIORITY_UNSPECIFIED {
		task.Priority = u.GetPriority()
	}
	if u.Area != nil {
		task.Area = u.GetArea()
	}
	if u.Assignee != nil {
		task.Assignee = u.GetAssignee()
	}
	if len(u.GetTags()) > 0 {
		tags, dups := dedupe(u.GetTags())
		if len(dups) > 0 {
			warnings = append(warnings, "duplicate tags removed: "+strings.Join(dups, ", "))
		}
		task.Tags = tags
	}
	if u.Instruction != nil {
		task.Instruction = u.GetInstruction()
	}
	if u.Tasks != nil {
		task.Tasks = u.GetTasks()
	}
	if u.Deliverable != nil {
		task.Deliverable = u.GetDeliverable()
	}
	if u.Log != nil {
		task.Log = u.GetLog()
	}
	if u.AddLogEntry != nil && strings.TrimSpace(u.GetAddLogEntry()) == "" {
		warnings = append(warnings, "addLogEntry is empty and was ignored")
	} else if u.AddLogEntry != nil {
		entry := fmt.Sprintf("- %s: %s", now.AsTime().UTC().Format(time.RFC3339), strings.TrimSpace(u.GetAddLogEntry()))
		if task.Log == "" {
			task.Log = entry
		} else {
			task.Log += "\n" + entry
		}
	}
	if task.Status == tasksv1.TaskStatus_TASK_STATUS_DONE && task.WorkflowState != tasksv1.WorkflowState_WORKFLOW_STATE_ARCHIVE {
		warnings = append(warnings, fmt.Sprintf("task is done but still in %s; call task_move with targetState archive to archive it", stateName(task.WorkflowState)))
	}
	task.UpdatedAt = now
	return &tasksv1.TaskUpdateResponse{
		Data:     proto.Clone(task).(*tasksv1.Task),
		Message:  "Task updated successfully",
		Metadata: metadata(now, warnings),
	}, nil
}

// TaskDelete removes a task and, with cascade, its subtasks.
func (t *Tracker) TaskDelete(_ context.Context, req *tasksv1.TaskDeleteRequest) (*tasksv1.TaskDeleteResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	task, children, err := deleteTarget(p, req)
	if err != nil {
		return nil, err
	}
	for _, c := range children {
		delete(p, c.GetId())
	}
	delete(p, task.GetId())
	msg := "Task deleted successfully"
	if len(children) > 0 {
		msg = fmt.Sprintf("Task and %d subtask(s) deleted successfully", len(children))
	}
	return &tasksv1.TaskDeleteResponse{
		Data:     &tasksv1.TaskDeletion{Id: task.GetId(), Deleted: true, CascadeCount: int32(len(children))},
		Message:  msg,
		Metadata: metadata(req.GetMeta().GetRequestedAt(), nil),
	}, nil
}

// deleteTarget is the task a delete removes and its subtasks, or the
// error the delete answers: the task does not exist, or it has subtasks
// and cascade is not set.
func deleteTarget(p map[string]*tasksv1.Task, req *tasksv1.TaskDeleteRequest) (*tasksv1.Task, []*tasksv1.Task, error) {
	task, err := find(p, req.GetId(), req.GetParentId())
	if err != nil {
		return nil, nil, err
	}
	children := subtasks(p, task.GetId())
	if len(children) > 0 && !req.GetCascade() {
		return nil, nil, precondition("HAS_SUBTASKS", task.GetId(), fmt.Sprintf("task %s has %d subtask(s); pass cascade: true to delete them as well", task.GetId(), len(children)))
	}
	return task, children, nil
}

// TaskMove moves a parent task (with its subtasks) or a standalone task to
// another workflow folder, updating the status when asked. The decoder has
// already required archive_date for archive moves.
func (t *Tracker) TaskMove(_ context.Context, req *tasksv1.TaskMoveRequest) (*tasksv1.TaskMoveResponse, error) {
	target := req.GetTargetState()
	archive := target == tasksv1.WorkflowState_WORKFLOW_STATE_ARCHIVE
	if archive {
		if _, err := time.Parse("2006-01", req.GetArchiveDate()); err != nil {
			return nil, badRequest("archiveDate", "INVALID_MONTH", fmt.Sprintf("archiveDate %s is not a valid month; use YYYY-MM, e.g. 2026-11", runtime.Excerpt(req.GetArchiveDate())))
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	task, err := find(p, req.GetId(), req.GetParentId())
	if err != nil {
		return nil, err
	}
	if task.GetParentId() != "" {
		return nil, precondition("SUBTASK_MOVE", task.GetId(), fmt.Sprintf("subtasks move with their parent; move task %s instead", task.GetParentId()))
	}
	prev := task.GetWorkflowState()
	if prev == target {
		return nil, precondition("SAME_STATE", task.GetId(), fmt.Sprintf("task %s is already in %s", task.GetId(), stateName(target)))
	}
	var warnings []string
	if !archive && req.GetArchiveDate() != "" {
		warnings = append(warnings, "archiveDate is only used for archive moves and was ignored")
	}
	move := &tasksv1.TaskMove{Id: task.GetId(), PreviousState: prev, CurrentState: target, StatusUpdated: proto.Bool(false)}
	dir := ""
	if archive {
		dir = req.GetArchiveDate()
	}
	now := req.GetMeta().GetRequestedAt()
	for _, x := range append([]*tasksv1.Task{task}, subtasks(p, task.GetId())...) {
		x.WorkflowState = target
		x.Path = taskPath(req.GetRootDir(), x, dir)
		x.UpdatedAt = now
	}
	if next, ok := statusAfter(task.GetStatus(), target); ok {
		if req.GetUpdateStatus() {
			task.Status = next
			move.StatusUpdated, move.NewStatus = proto.Bool(true), next
		} else if archive {
			warnings = append(warnings, fmt.Sprintf("task archived with status %s because updateStatus is false", statusName(task.GetStatus())))
		}
	}
	return &tasksv1.TaskMoveResponse{
		Data:     move,
		Message:  fmt.Sprintf("Task moved from %s to %s", stateName(prev), stateName(target)),
		Metadata: metadata(now, warnings),
	}, nil
}

// statusAfter is the status a workflow transition implies, if it changes.
func statusAfter(cur tasksv1.TaskStatus, target tasksv1.WorkflowState) (tasksv1.TaskStatus, bool) {
	switch target {
	case tasksv1.WorkflowState_WORKFLOW_STATE_CURRENT:
		if cur == tasksv1.TaskStatus_TASK_STATUS_TODO {
			return tasksv1.TaskStatus_TASK_STATUS_IN_PROGRESS, true
		}
	case tasksv1.WorkflowState_WORKFLOW_STATE_BACKLOG:
		if cur == tasksv1.TaskStatus_TASK_STATUS_IN_PROGRESS {
			return tasksv1.TaskStatus_TASK_STATUS_TODO, true
		}
	case tasksv1.WorkflowState_WORKFLOW_STATE_ARCHIVE:
		if cur != tasksv1.TaskStatus_TASK_STATUS_DONE && cur != tasksv1.TaskStatus_TASK_STATUS_ARCHIVED {
			return tasksv1.TaskStatus_TASK_STATUS_DONE, true
		}
	}
	return cur, false
}

// find looks a task up; with parentID it must be that parent's subtask.
func find(p map[string]*tasksv1.Task, id, parentID string) (*tasksv1.Task, error) {
	task, ok := p[id]
	if !ok {
		return nil, notFound("task", id)
	}
	if parentID != "" && task.GetParentId() != parentID {
		return nil, status.Errorf(codes.NotFound, "task %s is not a subtask of %s", id, parentID)
	}
	return task, nil
}

// subtasks returns a task's subtasks in id order.
func subtasks(p map[string]*tasksv1.Task, id string) []*tasksv1.Task {
	var out []*tasksv1.Task
	for _, x := range p {
		if x.GetParentId() == id {
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetId() < out[j].GetId() })
	return out
}

// taskPath is where the task's file lives, relative to the project root:
// answers never show the server's directories.
func taskPath(_ string, task *tasksv1.Task, archiveMonth string) string {
	parts := []string{".tasks", stateName(task.GetWorkflowState())}
	if archiveMonth != "" {
		parts = append(parts, archiveMonth)
	}
	if task.GetParentId() != "" {
		parts = append(parts, task.GetParentId())
	}
	return path.Join(append(parts, task.GetId()+".task.md")...)
}

func isEmptyUpdate(u *tasksv1.TaskUpdates) bool {
	return u == nil || (u.Title == nil && u.GetStatus() == 0 && u.GetPriority() == 0 && u.Area == nil &&
		u.Assignee == nil && len(u.GetTags()) == 0 && u.Instruction == nil && u.Tasks == nil &&
		u.Deliverable == nil && u.Log == nil && u.AddLogEntry == nil)
}

func dedupe(tags []string) (out, dups []string) {
	for _, t := range tags {
		if slices.Contains(out, t) {
			dups = append(dups, t)
			continue
		}
		out = append(out, t)
	}
	return out, dups
}

func metadata(now *timestamppb.Timestamp, warnings []string) *tasksv1.ResponseMetadata {
	return &tasksv1.ResponseMetadata{Timestamp: now, Version: APIVersion, Warnings: warnings}
}

// stateName is the agent-facing spelling of a workflow state.
func stateName(s tasksv1.WorkflowState) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_STATE_"))
}

// statusName is the agent-facing spelling of a status.
func statusName(s tasksv1.TaskStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "TASK_STATUS_"))
}

func notFound(kind, id string) error {
	st := status.New(codes.NotFound, fmt.Sprintf("%s %s not found", kind, id))
	if d, err := st.WithDetails(&errdetails.ResourceInfo{ResourceType: "task", ResourceName: id}); err == nil {
		st = d
	}
	return st.Err()
}

func badRequest(field, reason, desc string) error {
	st := status.New(codes.InvalidArgument, desc)
	if d, err := st.WithDetails(&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: field, Description: desc, Reason: reason}}}); err == nil {
		st = d
	}
	return st.Err()
}

func precondition(kind, subject, desc string) error {
	st := status.New(codes.FailedPrecondition, desc)
	if d, err := st.WithDetails(&errdetails.PreconditionFailure{Violations: []*errdetails.PreconditionFailure_Violation{{Type: kind, Subject: subject, Description: desc}}}); err == nil {
		st = d
	}
	return st.Err()
}

// Task returns a copy of a tenant's task in the project at root, for
// inspection.
func (t *Tracker) Task(tenant, root, id string) (*tasksv1.Task, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	task, ok := t.projects[t.projectKey(tenant, root)][id]
	if !ok {
		return nil, false
	}
	return proto.Clone(task).(*tasksv1.Task), true
}

// TaskList answers the project's tasks in creation order (ids are ULIDs),
// filtered by workflow folder and parent when asked.
func (t *Tracker) TaskList(_ context.Context, req *tasksv1.TaskListRequest) (*tasksv1.TaskListResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	out := []*tasksv1.Task{}
	for _, task := range p {
		if ws := req.GetWorkflowState(); ws != tasksv1.WorkflowState_WORKFLOW_STATE_UNSPECIFIED && task.GetWorkflowState() != ws {
			continue
		}
		if pid := req.GetParentId(); pid != "" && task.GetParentId() != pid {
			continue
		}
		out = append(out, proto.Clone(task).(*tasksv1.Task))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetId() < out[j].GetId() })
	return &tasksv1.TaskListResponse{
		Data:     out,
		Message:  fmt.Sprintf("%d task(s)", len(out)),
		Metadata: metadata(req.GetMeta().GetRequestedAt(), nil),
	}, nil
}

// TaskGet answers one task, found as the writes find it.
func (t *Tracker) TaskGet(_ context.Context, req *tasksv1.TaskGetRequest) (*tasksv1.TaskGetResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	task, err := find(t.project(req.GetMeta(), req.GetRootDir()), req.GetId(), req.GetParentId())
	if err != nil {
		return nil, err
	}
	return &tasksv1.TaskGetResponse{
		Data:     proto.Clone(task).(*tasksv1.Task),
		Message:  "Task retrieved successfully",
		Metadata: metadata(req.GetMeta().GetRequestedAt(), nil),
	}, nil
}

// maxSequence is the last two-digit subtask sequence.
const maxSequence = 99

// lastSequence is the highest sequence among parentID's subtasks, 0 without
// any.
func lastSequence(p map[string]*tasksv1.Task, parentID string) int {
	n := 0
	for _, s := range subtasks(p, parentID) {
		n = max(n, seqNum(s.GetSequence()))
	}
	return n
}

func seqString(n int) string { return fmt.Sprintf("%02d", n) }

func seqNum(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
