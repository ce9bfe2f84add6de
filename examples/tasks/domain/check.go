package domain

import (
	"context"

	"google.golang.org/protobuf/proto"

	tasksv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1"
)

// Check is the tracker's answer before a write (runtime.Previews.Check):
// the error the write would return, found before the user is asked to
// confirm it or a proposal is stored. A task_delete of a task that does not
// exist is NOT_FOUND, and of a parent without cascade the write's
// HAS_SUBTASKS refusal, without asking anyone to confirm a delete that
// cannot happen. Other writes check nothing ahead.
func (t *Tracker) Check(_ context.Context, _ string, req proto.Message) (map[string]any, error) {
	del, ok := req.(*tasksv1.TaskDeleteRequest)
	if !ok {
		return nil, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _, err := deleteTarget(t.project(del.GetMeta(), del.GetRootDir()), del)
	return nil, err
}
