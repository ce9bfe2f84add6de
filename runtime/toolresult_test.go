package runtime

import (
	"testing"
	"unsafe"
)

// An answer's text content and structured content are its body, once: the
// text is not a copy of the bytes.
func TestToolResultSharesTheBody(t *testing.T) {
	body := []byte(`{"success":true,"id":"n1"}`)
	res := toolResult(body, true)
	if len(res.Content) != 1 || res.Content[0] != string(body) || string(res.StructuredContent) != string(body) || !res.IsError {
		t.Fatalf("toolResult = %+v", res)
	}
	if unsafe.StringData(res.Content[0]) != unsafe.SliceData(body) || unsafe.SliceData(res.StructuredContent) != unsafe.SliceData(body) {
		t.Error("the text content or the structured content is a copy of the body")
	}
	if empty := toolResult(nil, false); len(empty.Content) != 1 || empty.Content[0] != "" || empty.StructuredContent != nil {
		t.Errorf("toolResult(nil) = %+v", empty)
	}
}
