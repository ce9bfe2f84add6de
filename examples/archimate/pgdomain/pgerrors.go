package pgdomain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// storeError answers a failed database operation of a write or read of req
// (docs/postgres.md has the table):
//
//   - data the store cannot hold (a NUL character, a value over a column's
//     limit, other data exceptions, class 22) and constraint violations
//     (class 23) are permanent: a non-retryable error naming the field,
//     which the runtime records as the call's outcome;
//   - connection loss (08), serialization failures and deadlocks (40),
//     insufficient resources (53), cancelled statements and shutdowns (57),
//     and failures before the server answered (network, timeouts) are
//     transient: UNAVAILABLE with a retry hint, the key released;
//   - anything else (a missing table, a programming error) is internal.
func (r *Repository) storeError(ctx context.Context, req proto.Message, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return unavailable(err)
	}
	class := pe.Code[:2]
	switch {
	case pe.Code == "22P05" || pe.Code == "22021":
		field := fieldWhere(req, func(_ string, s string) bool { return strings.ContainsRune(s, 0) || !utf8.ValidString(s) })
		return permanent(pe, field, fmt.Sprintf("%s contains a character the store cannot hold (U+0000 or invalid UTF-8)", nameOr(field)),
			"Remove the NUL (U+0000) characters from "+nameOr(field)+"; the same request always fails")
	case pe.Code == "22001":
		var lim int
		field := fieldWhere(req, func(name, s string) bool {
			lim = limitOf(name)
			return utf8.RuneCountInString(s) > lim
		})
		return permanent(pe, field, fmt.Sprintf("%s is longer than the %d characters the store holds", nameOr(field), lim),
			fmt.Sprintf("Shorten %s to at most %d characters; the same request always fails", nameOr(field), lim))
	case class == "22":
		return permanent(pe, "", "a value of the request cannot be stored: "+pe.Message, "Correct the request; the same request always fails")
	case class == "23":
		return r.constraintError(pe)
	case class == "08" || class == "40" || class == "53" || class == "57" || pe.Code == "55P03":
		return unavailable(err)
	}
	slog.ErrorContext(ctx, "archimate: repository database error", "code", pe.Code, "error", err)
	return &runtime.ErrorEntry{Code: runtime.CodeInternal, Message: "the architecture repository failed; nothing was written"}
}

// notText answers a request the outbox cannot record as JSON (a string
// that is not valid UTF-8): permanent, naming the field.
func notText(req proto.Message, err error) error {
	field := fieldWhere(req, func(_ string, s string) bool { return !utf8.ValidString(s) })
	return &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: field,
		Message:     nameOr(field) + " is not valid UTF-8 text, which the store cannot hold",
		Details:     map[string]any{"retryable": false, "cause": err.Error()},
		Suggestions: &runtime.Suggestions{Hint: "Send " + nameOr(field) + " as UTF-8 text; the same request always fails"}}
}

// permanent is a deterministic store error: retrying the same request
// fails the same way.
func permanent(pe *pgconn.PgError, field, msg, hint string) error {
	return &runtime.ErrorEntry{Code: runtime.CodeValidation, Field: field, Message: msg,
		Details:     map[string]any{"sqlstate": pe.Code, "retryable": false},
		Suggestions: &runtime.Suggestions{Hint: hint}}
}

// constraintError names what a constraint protects: the answers the
// domain gives when it sees the conflict itself (a concurrent write got
// there first).
func (r *Repository) constraintError(pe *pgconn.PgError) error {
	c := strings.TrimPrefix(pe.ConstraintName, r.prefix+"_")
	entry := func(code, field, msg, hint string) error {
		return &runtime.ErrorEntry{Code: code, Field: field, Message: msg,
			Details: map[string]any{"sqlstate": pe.Code, "constraint": c, "retryable": false}, Suggestions: &runtime.Suggestions{Hint: hint}}
	}
	switch c {
	case "elements_pkey":
		return entry(runtime.CodeAlreadyExists, "id", "an element with this id already exists", "Use a new id, or updateElement to change the existing element")
	case "elements_name_key":
		return entry(runtime.CodeAlreadyExists, "name", "an element with this name already exists in this model", "Choose a different name, or updateElement the existing element")
	case "relationships_pkey":
		return entry(runtime.CodeAlreadyExists, "id", "a relationship with this id already exists", "Use a new id")
	case "relationships_source_fk":
		return entry(runtime.CodeNotFound, "source_id", "the source element does not exist (it was deleted meanwhile)", "Use the id of an existing element")
	case "relationships_target_fk":
		return entry(runtime.CodeNotFound, "target_id", "the target element does not exist (it was deleted meanwhile)", "Use the id of an existing element")
	case "properties_element_fk":
		return entry(runtime.CodeNotFound, "id", "the element does not exist (it was deleted meanwhile)", "Use the id of an existing element")
	}
	field := pe.ColumnName
	return entry(runtime.CodeConstraintViolation, field, "the request breaks a rule of the store: "+pe.Message, "Correct the request; the same request always fails")
}

// refusesFresh reports whether err, the failure of a create that did not
// read its footprint (footprint.fresh), is one the write answers from
// what it reads: a constraint violation (class 23: its id or its name
// taken) or data the store cannot hold (class 22, which the footprint's
// read meets first when a name holds it). Both are permanent; the write
// runs again reading its footprint, and is answered as before.
func refusesFresh(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (strings.HasPrefix(pe.Code, "22") || strings.HasPrefix(pe.Code, "23"))
}

// unavailable is a transient database failure: logged with its cause,
// answered as UNAVAILABLE (the runtime releases the key, so a retry
// executes once).
func unavailable(err error) error {
	slog.Error("archimate: repository database failed", "error", err)
	return status.Error(codes.Unavailable, "the architecture repository is unavailable; retry with the same client_request_id")
}

// limitOf is the column limit (characters) of a request field by name
// (map keys and values are named name.key and name.value).
func limitOf(field string) int {
	switch field {
	case "name", "component_name", "value_streams", "sub_capabilities", "services":
		return 1024
	case "description", "component_description", "properties.value":
		return 1 << 30 // text
	}
	return 256
}

// fieldWhere is the JSON path of the first string field of m (map keys and
// values, list items, nested messages) for which bad reports true, given
// the field's name; "" when there is none.
func fieldWhere(m proto.Message, bad func(name, s string) bool) string {
	if m == nil {
		return ""
	}
	return walk(m.ProtoReflect(), "", bad)
}

func walk(m protoreflect.Message, prefix string, bad func(name, s string) bool) string {
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		path := prefix + name
		switch {
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				key := k.String()
				switch {
				case bad(name+".key", key):
					found = path
				case fd.MapValue().Kind() == protoreflect.StringKind && bad(name+".value", mv.String()):
					found = path + "." + key
				}
				return found == ""
			})
		case fd.IsList():
			for i := 0; i < v.List().Len() && found == ""; i++ {
				item := v.List().Get(i)
				switch fd.Kind() {
				case protoreflect.StringKind:
					if bad(name, item.String()) {
						found = fmt.Sprintf("%s[%d]", path, i)
					}
				case protoreflect.MessageKind:
					found = walk(item.Message(), fmt.Sprintf("%s[%d].", path, i), bad)
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			if bad(name, v.String()) {
				found = path
			}
		case fd.Kind() == protoreflect.MessageKind:
			found = walk(v.Message(), path+".", bad)
		}
		return found == ""
	})
	return found
}

func nameOr(field string) string {
	if field == "" {
		return "a value of the request"
	}
	return field
}
