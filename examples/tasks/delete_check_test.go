package tasks_test

import "testing"

// A delete that cannot happen (the task does not exist, or a parent
// without cascade) is refused as the write would refuse it, before the user
// is asked to confirm it or a proposal is stored.
func TestTaskDeleteChecksExistenceAndCascadeBeforeAskingTheUser(t *testing.T) {
	notFound := `{"code":"NOT_FOUND","message":"task nope not found","details":{"resource_name":"nope","resource_type":"task"}}`
	hasSubtasks := `task ` + firstID + ` has 1 subtask(s); pass cascade: true to delete them as well`
	conflict := `{"code":"CONFLICT","message":"` + hasSubtasks + `","details":{"precondition_failures":[{"description":"` + hasSubtasks + `","subject":"` + firstID + `","type":"HAS_SUBTASKS"}]}}`
	cases := []struct{ name, args, entry string }{
		{"a task that does not exist", `{"id":"nope"}`, notFound},
		{"a parent without cascade", `{"id":"` + firstID + `"}`, conflict},
	}
	s := newSession(t, userAccepts)
	withFamily(s)
	p := newSession(t, noElicitation) // would store a proposal instead of asking
	withFamily(p)
	for _, tc := range cases {
		want := `{"success":false,"error":` + tc.entry + `,"errors":[` + tc.entry + `]}`
		for _, sess := range []*session{s, p} {
			if r := sess.call("task_delete", tc.args); !r.isError || r.text != want {
				t.Errorf("%s: got isError=%v\n%s\nwant\n%s", tc.name, r.isError, r.text, want)
			}
		}
		if len(s.asked) != 0 {
			t.Errorf("%s: the user was asked %q before the delete was checked", tc.name, s.asked)
		}
	}
}
