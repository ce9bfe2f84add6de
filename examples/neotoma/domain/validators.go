package domain

import (
	"fmt"
	"net/mail"
	"net/url"
	"regexp"

	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// validators are the checks a schema field's validator can name, each
// telling whether a string value passes.
var validators = map[string]func(string) bool{
	"email": func(s string) bool {
		a, err := mail.ParseAddress(s)
		return err == nil && a.Address == s
	},
	"url": func(s string) bool {
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && u.Host != ""
	},
	"uuid": uuidRE.MatchString,
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// passes reports whether v passes f's validator: a field without one, a
// null and a value of another type (refused as such) always do.
func (f fieldDef) passes(v *structpb.Value) bool {
	check := validators[f.validator]
	s, ok := v.GetKind().(*structpb.Value_StringValue)
	return check == nil || !ok || check(s.StringValue)
}

// validatorFailed answers a value of field k of an entity type that fails
// the field's validator, without quoting the value.
func validatorFailed(path, k, typ string, f fieldDef) *runtime.ErrorEntry {
	return &runtime.ErrorEntry{
		Code: runtime.CodeValidation, Field: path,
		Message: fmt.Sprintf("%s of %s must be a valid %s", k, withArticle(typ), f.validator),
		Details: map[string]any{"reason": "VALIDATOR_FAILED", "validator": f.validator},
	}
}

// checkValidator refuses a field definition's validator that names no
// check, or a check of strings on a field of another type.
func checkValidator(path string, def *neotomav1.FieldDefinition) *runtime.ErrorEntry {
	name := def.GetValidator()
	switch {
	case name == "":
		return nil
	case validators[name] == nil:
		names := sortedKeys(validators)
		return &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: path,
			Message:     "unknown validator " + runtime.Excerpt(name),
			Suggestions: &runtime.Suggestions{DidYouMean: suggest.Closest(name, names, 3), ValidValues: names},
		}
	case def.GetType() != tString:
		return &runtime.ErrorEntry{
			Code: runtime.CodeValidation, Field: path,
			Message:     fmt.Sprintf("validator %s checks strings, and the field is of type %s", name, FieldTypeName(def.GetType())),
			Suggestions: &runtime.Suggestions{Hint: "Set a validator on string fields only."},
		}
	}
	return nil
}
