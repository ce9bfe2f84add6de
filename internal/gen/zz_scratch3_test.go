package gen_test

import (
	"math/rand/v2"
	"testing"
	"regexp"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/compiler/protogen"
)

func TestScratchRefusals(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cnt := map[string]int{}
	num := regexp.MustCompile(`"[^"]*"`)
	for i := 0; i < 3000; i++ {
		n := r.IntN(300)
		data := make([]byte, n)
		for j := range data { data[j] = byte(r.IntN(256)) }
		req, _ := fzBuild(data, "")
		if _, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: req.GetProtoFile()}); err != nil {
			cnt["desc: "+err.Error()]++
			continue
		}
		if _, err := (protogen.Options{}).New(req); err != nil {
			cnt["protogen: "+num.ReplaceAllString(err.Error(), "Q")]++
		}
	}
	for k, v := range cnt { t.Logf("%4d %s", v, k) }
}
