package pgdomain

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Every row of the table in docs/postgres.md, including the classes a test
// cannot force on a shared server (connection loss, deadlocks, too many
// connections, shutdowns): the answer is the row's.
func TestStoreErrorTable(t *testing.T) {
	r := &Repository{prefix: "archimate"}
	req := &archimatev1.CreateElementRequest{Id: "el-1", Name: "a\x00b", Properties: map[string]string{"k": "v"}}
	for _, tt := range []struct {
		err                error
		code, field, entry string // code: "UNAVAILABLE" (status) or an entry code
	}{
		{&pgconn.PgError{Code: "22021"}, "", "name", "VALIDATION_ERROR"},
		{&pgconn.PgError{Code: "22P05"}, "", "name", "VALIDATION_ERROR"},
		{&pgconn.PgError{Code: "22003", Message: "numeric field overflow"}, "", "", "VALIDATION_ERROR"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "archimate_elements_pkey"}, "", "id", "ALREADY_EXISTS"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "archimate_elements_name_key"}, "", "name", "ALREADY_EXISTS"},
		{&pgconn.PgError{Code: "23505", ConstraintName: "archimate_relationships_pkey"}, "", "id", "ALREADY_EXISTS"},
		{&pgconn.PgError{Code: "23503", ConstraintName: "archimate_relationships_source_fk"}, "", "source_id", "NOT_FOUND"},
		{&pgconn.PgError{Code: "23503", ConstraintName: "archimate_relationships_target_fk"}, "", "target_id", "NOT_FOUND"},
		{&pgconn.PgError{Code: "23502", ColumnName: "layer", Message: "null value"}, "", "layer", "CONSTRAINT_VIOLATION"},
		{&pgconn.PgError{Code: "08006"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "08003"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "40001"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "40P01"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "53300"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "55P03"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "57014"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "57P01"}, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "57P03"}, "UNAVAILABLE", "", ""},
		{io.ErrUnexpectedEOF, "UNAVAILABLE", "", ""},
		{context.DeadlineExceeded, "UNAVAILABLE", "", ""},
		{&pgconn.PgError{Code: "42P01"}, "", "", "INTERNAL"},
		{&pgconn.PgError{Code: "XX000"}, "", "", "INTERNAL"},
	} {
		got := r.storeError(context.Background(), req, tt.err)
		var e *runtime.ErrorEntry
		switch {
		case tt.code == "UNAVAILABLE":
			if status.Code(got) != codes.Unavailable {
				t.Errorf("%v: %v, want UNAVAILABLE", tt.err, got)
			}
		case !errors.As(got, &e) || e.Code != tt.entry || e.Field != tt.field:
			t.Errorf("%v: %v, want %s on %q", tt.err, got, tt.entry, tt.field)
		case tt.entry != "INTERNAL" && e.Details["retryable"] != false:
			t.Errorf("%v: %v is not marked permanent", tt.err, e)
		}
	}
}

// A string that is not UTF-8 cannot go into the outbox's JSON: permanent,
// naming the field, before anything is sent.
func TestInvalidUTF8IsPermanent(t *testing.T) {
	req := &archimatev1.CreateElementRequest{Id: "el-1", Name: "ok", Description: "bad \xff"}
	var e *runtime.ErrorEntry
	if err := notText(req, errors.New("invalid UTF-8")); !errors.As(err, &e) || e.Code != "VALIDATION_ERROR" || e.Field != "description" ||
		e.Message != "description is not valid UTF-8 text, which the store cannot hold" || e.Details["retryable"] != false {
		t.Fatalf("notText = %v", err)
	}
}
