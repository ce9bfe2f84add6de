package domain

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// UserIDHint answers agents that try to pass user_id.
const UserIDHint = "Do not send user_id: the acting user comes from the authenticated connection. Remove the argument and retry."

// ErrorHook names the argument a NOT_FOUND or ALREADY_EXISTS answer is
// about (the status carries the resource, the request says which argument
// held it) and tells the agent what to do next.
func ErrorHook(_ context.Context, _ string, req proto.Message, e *runtime.ErrorEntry) {
	switch e.Code {
	case runtime.CodeUnknownField:
		if e.Field == "user_id" {
			if e.Suggestions == nil {
				e.Suggestions = &runtime.Suggestions{}
			}
			e.Suggestions.Hint = UserIDHint
		}
	case runtime.CodeNotFound:
		kind, _ := e.Details["resource_type"].(string)
		name, _ := e.Details["resource_name"].(string)
		if e.Field == "" && req != nil {
			e.Field = fieldHolding(req.ProtoReflect(), name)
		}
		if e.Suggestions == nil && e.Field == "org_name" {
			e.Suggestions = &runtime.Suggestions{Hint: "None of your organisations has this name; call list_orgs with a query to find its exact name, or pass org_id."}
		}
		if e.Suggestions == nil && kind != "" {
			e.Suggestions = &runtime.Suggestions{Hint: fmt.Sprintf("Use %s %s id returned by %s or create_%s; only your own records exist for you.", article(kind), kind, listTool[kind], kind)}
		}
	case runtime.CodeAlreadyExists:
		if kind, _ := e.Details["resource_type"].(string); kind != "" && e.Suggestions == nil {
			name, _ := e.Details["resource_name"].(string)
			e.Suggestions = &runtime.Suggestions{Hint: fmt.Sprintf("The existing %s is %s: update it with update_%s, or merge duplicates.", kind, name, kind)}
		}
	}
}

// listTool is the read tool that lists each kind of record.
var listTool = map[string]string{"person": "list_people", "org": "list_orgs", "note": "list_notes"}

func article(noun string) string {
	if strings.IndexByte("aeiou", noun[0]) >= 0 {
		return "an"
	}
	return "a"
}

// fieldHolding returns the top-level agent argument whose value is v.
func fieldHolding(m protoreflect.Message, v string) string {
	if v == "" {
		return ""
	}
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
		if fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap() && val.String() == v && fd.Name() != "id" {
			found = string(fd.Name())
			return false
		}
		return true
	})
	return found
}
