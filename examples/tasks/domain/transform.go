package domain

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	tasksv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1"
)

// TaskTransform restructures a task: promote makes a standalone task a parent
// with subtasks, extract makes a subtask standalone, adopt makes a standalone
// task a subtask. The decoder has already required parent_id for extract and
// target_parent_id for adopt.
func (t *Tracker) TaskTransform(_ context.Context, req *tasksv1.TaskTransformRequest) (*tasksv1.TaskTransformResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	task, ok := p[req.GetId()]
	if !ok {
		return nil, notFound("task", req.GetId())
	}
	op := req.GetOperation()
	warnings := ignored(req)
	var out *tasksv1.TaskTransform
	var msg string
	var err error
	switch op {
	case tasksv1.TransformOperation_TRANSFORM_OPERATION_PROMOTE:
		out, msg, err = t.promote(p, task, req)
	case tasksv1.TransformOperation_TRANSFORM_OPERATION_EXTRACT:
		out, msg, err = t.extract(p, task, req)
	case tasksv1.TransformOperation_TRANSFORM_OPERATION_ADOPT:
		var w []string
		out, msg, w, err = t.adopt(p, task, req)
		warnings = append(warnings, w...)
	default:
		return nil, badRequest("operation", "UNKNOWN_OPERATION", fmt.Sprintf("operation %d is not promote, extract or adopt", op))
	}
	if err != nil {
		return nil, err
	}
	task.UpdatedAt = req.GetMeta().GetRequestedAt()
	out.Operation = op
	out.TransformedTask = proto.Clone(task).(*tasksv1.Task)
	return &tasksv1.TaskTransformResponse{
		Data:     out,
		Message:  msg,
		Metadata: metadata(req.GetMeta().GetRequestedAt(), warnings),
	}, nil
}

// ignored warns about fields the operation does not read.
func ignored(req *tasksv1.TaskTransformRequest) []string {
	var unused []string
	op := req.GetOperation()
	if req.GetParentId() != "" && op != tasksv1.TransformOperation_TRANSFORM_OPERATION_EXTRACT {
		unused = append(unused, "parentId")
	}
	if req.GetTargetParentId() != "" && op != tasksv1.TransformOperation_TRANSFORM_OPERATION_ADOPT {
		unused = append(unused, "targetParentId")
	}
	if len(req.GetInitialSubtasks()) > 0 && op != tasksv1.TransformOperation_TRANSFORM_OPERATION_PROMOTE {
		unused = append(unused, "initialSubtasks")
	}
	if req.GetPosition() != nil && op != tasksv1.TransformOperation_TRANSFORM_OPERATION_ADOPT {
		if req.GetSequence() != "" {
			unused = append(unused, "sequence")
		} else {
			unused = append(unused, "after")
		}
	}
	var out []string
	for _, f := range unused {
		out = append(out, fmt.Sprintf("%s is not used by %s and was ignored", f, operationName(op)))
	}
	return out
}

// promote turns a standalone task into a parent: each subtask title becomes
// a subtask with id <task id>-<nn> (the first free), in the parent's folder.
func (t *Tracker) promote(p map[string]*tasksv1.Task, task *tasksv1.Task, req *tasksv1.TaskTransformRequest) (*tasksv1.TaskTransform, string, error) {
	if pid := task.GetParentId(); pid != "" {
		return nil, "", precondition("SUBTASK_PROMOTE", task.GetId(), fmt.Sprintf("task %s is a subtask of %s; extract it first", task.GetId(), pid))
	}
	if n := len(subtasks(p, task.GetId())); n > 0 {
		return nil, "", precondition("ALREADY_PARENT", task.GetId(), fmt.Sprintf("task %s already has %d subtask(s)", task.GetId(), n))
	}
	titles := req.GetInitialSubtasks()
	if len(titles) == 0 {
		titles = openChecklistItems(task.GetTasks())
	}
	if len(titles) == 0 {
		return nil, "", badRequest("initialSubtasks", "NOTHING_TO_PROMOTE", fmt.Sprintf("task %s has no open checklist items; give initialSubtasks to promote it", task.GetId()))
	}
	if len(titles) > maxSequence {
		return nil, "", badRequest("initialSubtasks", "TOO_MANY_SUBTASKS", fmt.Sprintf("a parent holds at most %d subtasks, got %d", maxSequence, len(titles)))
	}
	now := req.GetMeta().GetRequestedAt()
	out := &tasksv1.TaskTransform{}
	for i, title := range titles {
		sub := &tasksv1.Task{
			Id:            nextSubtaskID(p, task.GetId()),
			Title:         strings.TrimSpace(title),
			Type:          task.GetType(),
			Status:        tasksv1.TaskStatus_TASK_STATUS_TODO,
			Priority:      task.GetPriority(),
			WorkflowState: task.GetWorkflowState(),
			Area:          task.GetArea(),
			ParentId:      task.GetId(),
			Sequence:      seqString(i + 1),
			CreatedAt:     now,
			UpdatedAt:     now,
		}
		sub.Path = taskPath(req.GetRootDir(), sub, "")
		p[sub.Id] = sub
		out.AffectedTasks = append(out.AffectedTasks, sub.Id)
	}
	return out, fmt.Sprintf("Task promoted to a parent with %d subtask(s)", len(titles)), nil
}

// extract makes a subtask of parent_id a standalone task in the same folder.
func (t *Tracker) extract(p map[string]*tasksv1.Task, task *tasksv1.Task, req *tasksv1.TaskTransformRequest) (*tasksv1.TaskTransform, string, error) {
	if _, err := find(p, task.GetId(), req.GetParentId()); err != nil {
		return nil, "", err
	}
	parent := task.GetParentId()
	task.ParentId, task.Sequence = "", ""
	task.Path = taskPath(req.GetRootDir(), task, "")
	return &tasksv1.TaskTransform{AffectedTasks: []string{parent}}, "Subtask extracted into a standalone task", nil
}

// adopt makes a standalone task a subtask of target_parent_id at the given
// sequence, after the given subtask (moving later ones down), or last.
func (t *Tracker) adopt(p map[string]*tasksv1.Task, task *tasksv1.Task, req *tasksv1.TaskTransformRequest) (*tasksv1.TaskTransform, string, []string, error) {
	tid := req.GetTargetParentId()
	switch {
	case task.GetParentId() != "":
		return nil, "", nil, precondition("ALREADY_SUBTASK", task.GetId(), fmt.Sprintf("task %s is already a subtask of %s; extract it first", task.GetId(), task.GetParentId()))
	case tid == task.GetId():
		return nil, "", nil, badRequest("targetParentId", "SELF_ADOPT", fmt.Sprintf("task %s cannot adopt itself", tid))
	case len(subtasks(p, task.GetId())) > 0:
		return nil, "", nil, precondition("HAS_SUBTASKS", task.GetId(), fmt.Sprintf("task %s has subtasks; subtasks cannot have subtasks", task.GetId()))
	}
	parent, ok := p[tid]
	if !ok {
		return nil, "", nil, notFound("parent task", tid)
	}
	if parent.GetParentId() != "" {
		return nil, "", nil, badRequest("targetParentId", "SUBTASK_NESTING", fmt.Sprintf("task %s is itself a subtask; subtasks cannot have subtasks", tid))
	}
	if parent.GetWorkflowState() == tasksv1.WorkflowState_WORKFLOW_STATE_ARCHIVE {
		return nil, "", nil, precondition("ARCHIVED_PARENT", tid, fmt.Sprintf("parent task %s is archived; move it out of the archive before adding subtasks", tid))
	}
	seq, shifted, err := placeSubtask(p, tid, "sequence", req.GetSequence(), req.GetAfter())
	if err != nil {
		return nil, "", nil, err
	}
	out := &tasksv1.TaskTransform{AffectedTasks: []string{tid}}
	for _, sh := range shifted {
		out.AffectedTasks = append(out.AffectedTasks, sh.GetId())
	}
	var warnings []string
	if task.GetWorkflowState() != parent.GetWorkflowState() {
		warnings = append(warnings, fmt.Sprintf("subtasks live in their parent's folder: the task moved from %s to %s", stateName(task.GetWorkflowState()), stateName(parent.GetWorkflowState())))
		task.WorkflowState = parent.GetWorkflowState()
	}
	task.ParentId, task.Sequence = tid, seq
	task.Path = taskPath(req.GetRootDir(), task, "")
	return out, fmt.Sprintf("Task adopted by %s as subtask %s", tid, seq), warnings, nil
}

// openChecklistItems returns the unchecked "- [ ] item" lines of a checklist.
func openChecklistItems(md string) []string {
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if item, ok := strings.CutPrefix(strings.TrimSpace(line), "- [ ] "); ok && strings.TrimSpace(item) != "" {
			out = append(out, strings.TrimSpace(item))
		}
	}
	return out
}

// operationName is the agent-facing spelling of a transform operation.
func operationName(op tasksv1.TransformOperation) string {
	return strings.ToLower(strings.TrimPrefix(op.String(), "TRANSFORM_OPERATION_"))
}
