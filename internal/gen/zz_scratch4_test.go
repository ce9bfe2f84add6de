package gen_test

import (
	"encoding/hex"
	"testing"
	"strings"
	"google.golang.org/protobuf/encoding/prototext"
)

func TestScratchShow(t *testing.T) {
	data, _ := hex.DecodeString("748818ccc1c97a6da93662b242642d3a3f9d3f4ec78d48024cd05d6d5779d38861043a4f69ee2daf961b097db38c17e869aaf1445ef832a57678")
	req, _ := fzBuild(data, "")
	fd := req.ProtoFile[len(req.ProtoFile)-1]
	t.Logf("%s", prototext.Format(fd.Service[0]))
	resp, _ := fzRun(req)
	for _, f := range resp.File { if strings.HasSuffix(f.GetName(), "json") { 
		for _, l := range strings.Split(f.GetContent(), "\n") { if strings.Contains(l, "confirmation") || strings.Contains(l, "classification") || strings.Contains(l, "\"kind\"") || strings.Contains(l, "\"name\": \"") { t.Log(l) } } } }
}
