package gen_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"fmt"
)

func seedFeatures(data []byte) map[string]bool {
	req, _ := fzBuild(data, "")
	if req.GetParameter() != "" { return nil }
	resp, ok := fzRun(req)
	if !ok || resp.Error != nil || len(resp.File) == 0 || len(fzCheck(req, resp)) > 0 { return nil }
	fd := req.ProtoFile[len(req.ProtoFile)-1]
	feat := map[string]bool{"syntax:" + fd.GetSyntax(): true}
	for _, f := range resp.File {
		if !strings.HasSuffix(f.GetName(), ".json") { continue }
		var doc struct{ Services []struct{ Discovery []any `json:"discovery"`; Tools []struct{
			Confirmation string `json:"confirmation"`; InputSchema json.RawMessage `json:"input_schema"`
			ServerFills []struct{ Source, How string } `json:"server_fills"`; Examples []any `json:"examples"`
			RequiredFields []string `json:"required_fields"` } } }
		json.Unmarshal([]byte(f.GetContent()), &doc)
		if len(doc.Services) > 1 { feat["two services"] = true }
		for _, s := range doc.Services {
			if len(s.Discovery) > 0 { feat["discovery"] = true }
			if len(s.Tools) > 1 { feat["several tools"] = true }
			for _, t := range s.Tools {
				feat["confirm:"+t.Confirmation] = true
				var cb bytes.Buffer; json.Compact(&cb, t.InputSchema); in := cb.String()
				if strings.Contains(in, `"additionalProperties":{`) { feat["map"] = true }
				if strings.Contains(in, `"items"`) { feat["list"] = true }
				if strings.Contains(in, `"enum"`) { feat["enum alias"] = true }
				if strings.Contains(in, `"pattern"`) { feat["pattern"] = true }
				if strings.Contains(in, `"format":"date-time"`) { feat["timestamp"] = true }
				if strings.Count(in, `"type":"object"`) > 1 { feat["nested"] = true }
				if len(t.Examples) > 0 { feat["examples"] = true }
				if len(t.RequiredFields) > 0 { feat["required"] = true }
				for _, sf := range t.ServerFills {
					k := sf.Source
					if k == "generated" { k += ":" + sf.How }
					feat["fill:"+k] = true
				}
			}
		}
	}
	return feat
}

func TestScratchSeedFind(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	covered := map[string]bool{}
	type cand struct{ data []byte; feat map[string]bool }
	var cands []cand
	for i := 0; i < 30000; i++ {
		n := 10 + r.IntN(150)
		data := make([]byte, n)
		for j := range data { data[j] = byte(r.IntN(256)) }
		func() {
			defer func() { recover() }()
			if f := seedFeatures(data); f != nil { cands = append(cands, cand{data, f}) }
		}()
	}
	t.Logf("%d candidates", len(cands))
	for k := 0; k < 8; k++ {
		best, bestN := -1, 0
		for i, c := range cands {
			n := 0
			for f := range c.feat { if !covered[f] { n++ } }
			if n > bestN || (n == bestN && n > 0 && len(c.data) < len(cands[best].data)) { best, bestN = i, n }
		}
		if best < 0 { break }
		var fs []string
		for f := range cands[best].feat { covered[f] = true; fs = append(fs, f) }
		sort.Strings(fs)
		fmt.Printf("SEED %x\n  %s\n", cands[best].data, strings.Join(fs, ", "))
	}
	var all []string
	for f := range covered { all = append(all, f) }
	sort.Strings(all)
	fmt.Println("covered:", all)
}
