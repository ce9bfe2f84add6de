package domain

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// UserIDHint answers agents that try to pass user_id, which Neotoma's
// older API documentation still shows as an argument.
const UserIDHint = "Do not send user_id: the acting user comes from the authenticated connection. Remove the argument and retry."

// EntitiesHint answers store's entities when it holds no entity or too many.
const EntitiesHint = `Send an array of entity objects, e.g. [{"entity_type":"invoice","invoice_number":"INV-001","amount":100}].`

// SchemaNotFoundHint is the way out of SCHEMA_NOT_FOUND on
// update_schema_incremental.
const SchemaNotFoundHint = "Add fields to one of valid_values (the types with an active schema), or register the type with register_schema and activate: true."

// ErrorHook adapts runtime errors to Neotoma's conventions: the generic enum
// error on relationship_type becomes INVALID_RELATIONSHIP_TYPE, which its
// clients already handle, naming the types as the API spells them
// (PART_OF), on update_schema_incremental's entity_type
// SCHEMA_NOT_FOUND, store's entities outside 1 to MaxEntities
// VALIDATION_ERROR, and a user_id argument gets an explanation.
func ErrorHook(_ context.Context, tool string, _ proto.Message, e *runtime.ErrorEntry) {
	switch {
	case e.Code == runtime.CodeInvalidEnumValue && strings.HasPrefix(e.Field, "relationship_type"):
		e.Code = CodeInvalidRelationshipType
		e.Message = "invalid value " + runtime.Excerpt(e.Rejected) + " for " + e.Field
		if s := e.Suggestions; s != nil {
			s.DidYouMean = upper(s.DidYouMean)
			s.ValidValues = upper(s.ValidValues)
			if len(s.DidYouMean) > 0 {
				e.Message += fmt.Sprintf("; did you mean %q?", s.DidYouMean[0])
			}
		}
	case e.Code == runtime.CodeInvalidEnumValue && e.Field == "entity_type" && tool == "update_schema_incremental":
		// The live vocabulary holds the types with an active schema, so a
		// type outside it has none to add fields to: the document's code.
		e.Code = CodeSchemaNotFound
		if e.Suggestions == nil {
			e.Suggestions = &runtime.Suggestions{}
		}
		e.Suggestions.Hint = SchemaNotFoundHint
	case e.Code == runtime.CodeConstraintViolation && e.Field == "entities" && tool == "store":
		// The decoder counts the array (1 to MaxEntities): the document
		// answers an empty one as VALIDATION_ERROR, with the array to send.
		e.Code = runtime.CodeValidation
		if e.Suggestions == nil {
			e.Suggestions = &runtime.Suggestions{}
		}
		e.Suggestions.Hint = EntitiesHint
	case e.Code == runtime.CodeUnknownField && e.Field == "user_id":
		if e.Suggestions == nil {
			e.Suggestions = &runtime.Suggestions{}
		}
		e.Suggestions.Hint = UserIDHint
	}
}

// upper is vs in upper case (nil stays nil).
func upper(vs []string) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.ToUpper(v)
	}
	return out
}
