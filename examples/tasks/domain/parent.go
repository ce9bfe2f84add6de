package domain

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	tasksv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// templates are the checklists a new subtask can start from, by task type.
var templates = map[string]string{
	"feature":       "- [ ] Design\n- [ ] Implement\n- [ ] Test\n- [ ] Document",
	"bug":           "- [ ] Reproduce\n- [ ] Fix\n- [ ] Add a regression test",
	"chore":         "- [ ] Do the work\n- [ ] Check nothing changed for users",
	"documentation": "- [ ] Draft\n- [ ] Review\n- [ ] Publish",
	"test":          "- [ ] Write the tests\n- [ ] Run them in CI",
	"spike":         "- [ ] State the question\n- [ ] Research\n- [ ] Write up the findings",
	"idea":          "- [ ] Describe the idea\n- [ ] Decide whether to plan it",
}

// ParentCreate stores a parent task with its overview and first subtasks.
// Every subtask is checked before anything is stored.
func (t *Tracker) ParentCreate(_ context.Context, req *tasksv1.ParentCreateRequest) (*tasksv1.ParentCreateResponse, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	if _, dup := p[req.GetId()]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "task %s already exists", req.GetId())
	}
	now := req.GetMeta().GetRequestedAt()
	var warnings []string
	tags, dups := dedupe(req.GetTags())
	if len(dups) > 0 {
		warnings = append(warnings, "duplicate tags removed: "+strings.Join(dups, ", "))
	}
	parent := &tasksv1.Task{
		Id:            req.GetId(),
		Title:         strings.TrimSpace(req.GetTitle()),
		Type:          req.GetType(),
		Status:        req.GetStatus(),
		Priority:      req.GetPriority(),
		WorkflowState: req.GetWorkflowState(),
		Area:          req.GetArea(),
		Assignee:      req.GetAssignee(),
		Tags:          tags,
		Instruction:   req.GetOverviewContent(),
		CreatedAt:     now,
		UpdatedAt:     now,
	}
	parent.Path = taskPath(req.GetRootDir(), parent, "")
	seqs, err := specSequences(req.GetSubtasks())
	if err != nil {
		return nil, err
	}
	p[parent.Id] = parent
	out := &tasksv1.ParentCreation{
		Id: parent.Id, Title: parent.Title, Type: parent.Type, WorkflowState: parent.WorkflowState, Path: parent.Path,
		SubtaskCount: proto.Int32(int32(len(seqs))),
	}
	for i, spec := range req.GetSubtasks() {
		sub := newSubtask(p, parent, spec.GetTitle(), spec.GetType(), seqs[i], now)
		sub.Path = taskPath(req.GetRootDir(), sub, "")
		p[sub.Id] = sub
		out.CreatedSubtasks = append(out.CreatedSubtasks, &tasksv1.CreatedSubtask{Id: sub.Id, Title: sub.Title, Sequence: sub.Sequence})
	}
	return &tasksv1.ParentCreateResponse{
		Data:     out,
		Message:  fmt.Sprintf("Parent task created with %d subtask(s)", len(seqs)),
		Metadata: metadata(now, warnings),
	}, nil
}

// specSequences numbers parent_create's subtasks: an explicit sequence, the
// sequence of the earlier subtask named by parallel_with, or one after the
// highest so far.
func specSequences(specs []*tasksv1.SubtaskSpec) ([]string, error) {
	var seqs []string
	byTitle := map[string]string{}
	var titles []string
	last := 0
	for i, spec := range specs {
		field := fmt.Sprintf("subtasks[%d]", i)
		var n int
		switch {
		case spec.GetSequence() != "":
			n, _ = strconv.Atoi(spec.GetSequence())
			if n == 0 {
				return nil, badRequest(field+".sequence", "INVALID_SEQUENCE", "sequence 00 is not a position; subtasks are numbered 01 to 99")
			}
		case spec.GetParallelWith() != "":
			s, ok := byTitle[strings.TrimSpace(spec.GetParallelWith())]
			if !ok {
				return nil, badRequest(field+".parallelWith", "UNKNOWN_SUBTASK", fmt.Sprintf("no earlier subtask is titled %s; parallelWith names one of: %s", runtime.Excerpt(spec.GetParallelWith()), quotedList(titles)))
			}
			n, _ = strconv.Atoi(s)
		default:
			n = last + 1
		}
		if n > maxSequence {
			return nil, badRequest(field, "SEQUENCE_FULL", fmt.Sprintf("subtask %d would take sequence %d; a parent holds sequences 01 to %02d", i+1, n, maxSequence))
		}
		last = max(last, n)
		s := seqString(n)
		seqs = append(seqs, s)
		title := strings.TrimSpace(spec.GetTitle())
		if _, seen := byTitle[title]; !seen {
			byTitle[title] = s
			titles = append(titles, title)
		}
	}
	return seqs, nil
}

// newSubtask is a new subtask of parent at seq, with the first free
// <parent id>-<nn> id: the parent's type unless typ is set, and the parent's
// priority, area and folder.
func newSubtask(p map[string]*tasksv1.Task, parent *tasksv1.Task, title string, typ tasksv1.TaskType, seq string, now *timestamppb.Timestamp) *tasksv1.Task {
	if typ == tasksv1.TaskType_TASK_TYPE_UNSPECIFIED {
		typ = parent.GetType()
	}
	return &tasksv1.Task{
		Id:            nextSubtaskID(p, parent.GetId()),
		Title:         strings.TrimSpace(title),
		Type:          typ,
		Status:        tasksv1.TaskStatus_TASK_STATUS_TODO,
		Priority:      parent.GetPriority(),
		WorkflowState: parent.GetWorkflowState(),
		Area:          parent.GetArea(),
		ParentId:      parent.GetId(),
		Sequence:      seq,
		CreatedAt:     now,
		UpdatedAt:     now,
	}
}

// ParentOperations resequences a parent's subtasks, runs several at one
// sequence, or adds one. The decoder has already required the fields of the
// operation that operation_data names.
func (t *Tracker) ParentOperations(_ context.Context, req *tasksv1.ParentOperationsRequest) (*tasksv1.ParentOperationsResponse, error) {
	op, data := req.GetOperation(), req.GetOperationData()
	if data.GetOperation() != op {
		return nil, badRequest("operationData.operation", "OPERATION_MISMATCH",
			fmt.Sprintf("operationData.operation is %s but operation is %s; both must name the same operation", parentOpName(data.GetOperation()), parentOpName(op)))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.project(req.GetMeta(), req.GetRootDir())
	parent, ok := p[req.GetParentId()]
	if !ok {
		return nil, notFound("parent task", req.GetParentId())
	}
	if parent.GetParentId() != "" {
		return nil, badRequest("parentId", "SUBTASK_NESTING", fmt.Sprintf("task %s is itself a subtask of %s; name its parent instead", parent.GetId(), parent.GetParentId()))
	}
	now := req.GetMeta().GetRequestedAt()
	out := &tasksv1.ParentOperationResult{Operation: op, ParentId: parent.GetId()}
	warnings := unusedOperationData(data)
	var msg string
	var err error
	switch op {
	case tasksv1.ParentOperation_PARENT_OPERATION_RESEQUENCE:
		msg, err = resequence(p, parent, data.GetSequenceMap(), out)
	case tasksv1.ParentOperation_PARENT_OPERATION_PARALLELIZE:
		msg, err = parallelize(p, parent, data, out)
	case tasksv1.ParentOperation_PARENT_OPERATION_ADD_SUBTASK:
		msg, err = addSubtask(p, parent, req.GetRootDir(), data.GetSubtask(), now, out)
	default:
		return nil, badRequest("operation", "UNKNOWN_OPERATION", fmt.Sprintf("operation %d is not resequence, parallelize or add_subtask", op))
	}
	if err != nil {
		return nil, err
	}
	for _, a := range out.GetAffectedSubtasks() {
		p[a.GetId()].UpdatedAt = now
	}
	parent.UpdatedAt = now
	return &tasksv1.ParentOperationsResponse{Data: out, Message: msg, Metadata: metadata(now, warnings)}, nil
}

// unusedOperationData warns about operation_data fields of other operations.
func unusedOperationData(d *tasksv1.ParentOperationData) []string {
	var unused []string
	op := d.GetOperation()
	if len(d.GetSequenceMap()) > 0 && op != tasksv1.ParentOperation_PARENT_OPERATION_RESEQUENCE {
		unused = append(unused, "sequenceMap")
	}
	if len(d.GetSubtaskIds()) > 0 && op != tasksv1.ParentOperation_PARENT_OPERATION_PARALLELIZE {
		unused = append(unused, "subtaskIds")
	}
	if d.GetTargetSequence() != "" && op != tasksv1.ParentOperation_PARENT_OPERATION_PARALLELIZE {
		unused = append(unused, "targetSequence")
	}
	if d.GetSubtask() != nil && op != tasksv1.ParentOperation_PARENT_OPERATION_ADD_SUBTASK {
		unused = append(unused, "subtask")
	}
	var out []string
	for _, f := range unused {
		out = append(out, fmt.Sprintf("operationData.%s is not used by %s and was ignored", f, parentOpName(op)))
	}
	return out
}

// resequence gives each listed subtask its new sequence; nothing changes
// unless every entry names a distinct subtask of parent.
func resequence(p map[string]*tasksv1.Task, parent *tasksv1.Task, m []*tasksv1.SequenceAssignment, out *tasksv1.ParentOperationResult) (string, error) {
	seen := map[string]bool{}
	for i, a := range m {
		field := fmt.Sprintf("operationData.sequenceMap[%d]", i)
		if seen[a.GetId()] {
			return "", badRequest(field+".id", "DUPLICATE_SUBTASK", fmt.Sprintf("subtask %s is listed twice; give each subtask one sequence", a.GetId()))
		}
		seen[a.GetId()] = true
		if _, err := find(p, a.GetId(), parent.GetId()); err != nil {
			return "", err
		}
		if a.GetSequence() == "00" {
			return "", badRequest(field+".sequence", "INVALID_SEQUENCE", "sequence 00 is not a position; subtasks are numbered 01 to 99")
		}
	}
	for _, a := range m {
		sub := p[a.GetId()]
		out.AffectedSubtasks = append(out.AffectedSubtasks, &tasksv1.AffectedSubtask{Id: sub.GetId(), PreviousSequence: sub.GetSequence(), CurrentSequence: a.GetSequence()})
		sub.Sequence = a.GetSequence()
	}
	return fmt.Sprintf("Resequenced %d subtask(s) of %s", len(m), parent.GetId()), nil
}

// parallelize puts the listed subtasks at one sequence: target_sequence, or
// the earliest of theirs.
func parallelize(p map[string]*tasksv1.Task, parent *tasksv1.Task, d *tasksv1.ParentOperationData, out *tasksv1.ParentOperationResult) (string, error) {
	ids := d.GetSubtaskIds()
	target := d.GetTargetSequence()
	if target == "00" {
		return "", badRequest("operationData.targetSequence", "INVALID_SEQUENCE", "sequence 00 is not a position; subtasks are numbered 01 to 99")
	}
	first := maxSequence + 1
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return "", badRequest(fmt.Sprintf("operationData.subtaskIds[%d]", i), "DUPLICATE_SUBTASK", fmt.Sprintf("subtask %s is listed twice; name two or more different subtasks", id))
		}
		sub, err := find(p, id, parent.GetId())
		if err != nil {
			return "", err
		}
		first = min(first, seqNum(sub.GetSequence()))
	}
	if target == "" {
		target = seqString(first)
	}
	for _, id := range ids {
		sub := p[id]
		out.AffectedSubtasks = append(out.AffectedSubtasks, &tasksv1.AffectedSubtask{Id: id, PreviousSequence: sub.GetSequence(), CurrentSequence: target})
		sub.Sequence = target
	}
	return fmt.Sprintf("%d subtask(s) of %s now run in parallel at sequence %s", len(ids), parent.GetId(), target), nil
}

// addSubtask creates a subtask of parent at its position, moving later
// subtasks down when it goes after a named one.
func addSubtask(p map[string]*tasksv1.Task, parent *tasksv1.Task, root string, ns *tasksv1.NewSubtask, now *timestamppb.Timestamp, out *tasksv1.ParentOperationResult) (string, error) {
	if parent.GetWorkflowState() == tasksv1.WorkflowState_WORKFLOW_STATE_ARCHIVE {
		return "", precondition("ARCHIVED_PARENT", parent.GetId(), fmt.Sprintf("parent task %s is archived; move it out of the archive before adding subtasks", parent.GetId()))
	}
	checklist := ""
	if name := ns.GetTemplate(); name != "" {
		var ok bool
		if checklist, ok = templates[name]; !ok {
			names := make([]string, 0, len(templates))
			for k := range templates {
				names = append(names, k)
			}
			sort.Strings(names)
			return "", badRequest("operationData.subtask.template", "UNKNOWN_TEMPLATE", fmt.Sprintf("template %s is not known; use one of: %s", runtime.Excerpt(name), strings.Join(names, ", ")))
		}
	}
	seq, shifted, err := placeSubtask(p, parent.GetId(), "operationData.subtask.sequence", ns.GetSequence(), ns.GetAfter())
	if err != nil {
		return "", err
	}
	for _, s := range shifted {
		out.AffectedSubtasks = append(out.AffectedSubtasks, &tasksv1.AffectedSubtask{Id: s.GetId(), PreviousSequence: s.prev, CurrentSequence: s.GetSequence()})
	}
	sub := newSubtask(p, parent, ns.GetTitle(), ns.GetType(), seq, now)
	sub.Tasks = checklist
	sub.Path = taskPath(root, sub, "")
	p[sub.Id] = sub
	out.AffectedSubtasks = append(out.AffectedSubtasks, &tasksv1.AffectedSubtask{Id: sub.Id, CurrentSequence: seq})
	out.NewSubtask = proto.Clone(sub).(*tasksv1.Task)
	return fmt.Sprintf("Subtask %s added to %s at sequence %s", sub.Id, parent.GetId(), seq), nil
}

// shiftedSubtask is a subtask placeSubtask moved down, with its old sequence.
type shiftedSubtask struct {
	*tasksv1.Task
	prev string
}

// placeSubtask finds the sequence for a new subtask of parentID: the given
// sequence (the agent's field seqField); one after the subtask named by after, moving the subtasks at or
// beyond it down one (returned); or one after the last.
func placeSubtask(p map[string]*tasksv1.Task, parentID, seqField, sequence, after string) (string, []shiftedSubtask, error) {
	var n int
	var shifted []shiftedSubtask
	switch {
	case sequence != "":
		if n = seqNum(sequence); n == 0 {
			return "", nil, badRequest(seqField, "INVALID_SEQUENCE", "sequence 00 is not a position; subtasks are numbered 01 to 99")
		}
	case after != "":
		a, err := find(p, after, parentID)
		if err != nil {
			return "", nil, err
		}
		n = seqNum(a.GetSequence()) + 1
		var later []*tasksv1.Task
		for _, s := range subtasks(p, parentID) {
			if m := seqNum(s.GetSequence()); m >= n {
				if m+1 > maxSequence {
					return "", nil, precondition("SEQUENCE_FULL", parentID, fmt.Sprintf("subtask %s is at sequence %02d and cannot move down", s.GetId(), m))
				}
				later = append(later, s)
			}
		}
		for _, s := range later {
			shifted = append(shifted, shiftedSubtask{Task: s, prev: s.GetSequence()})
			s.Sequence = seqString(seqNum(s.GetSequence()) + 1)
		}
	default:
		n = lastSequence(p, parentID) + 1
	}
	if n > maxSequence {
		return "", nil, precondition("SEQUENCE_FULL", parentID, fmt.Sprintf("parent task %s has no sequence left after %02d", parentID, maxSequence))
	}
	return seqString(n), shifted, nil
}

// nextSubtaskID is the first <parent id>-<nn> no task of the project holds.
func nextSubtaskID(p map[string]*tasksv1.Task, parentID string) string {
	for i := 1; ; i++ {
		id := fmt.Sprintf("%s-%02d", parentID, i)
		if _, taken := p[id]; !taken {
			return id
		}
	}
}

func quotedList(xs []string) string {
	if len(xs) == 0 {
		return "(none yet)"
	}
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}

// parentOpName is the agent-facing spelling of a parent operation.
func parentOpName(op tasksv1.ParentOperation) string {
	return strings.ToLower(strings.TrimPrefix(op.String(), "PARENT_OPERATION_"))
}
