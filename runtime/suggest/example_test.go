package suggest_test

import (
	"fmt"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

func ExampleClosest() {
	elementTypes := []string{"Capability", "BusinessProcess", "ApplicationComponent", "ApplicationService", "ApplicationInterface", "Node"}
	fmt.Println(suggest.Closest("AppComponent", elementTypes, 3))
	fmt.Println(suggest.Closest("APPLICATION_COMPONENT", elementTypes, 3))
	fmt.Println(suggest.Closest("Capabilities", elementTypes, 3))
	fmt.Println(suggest.Closest("BizProcess", elementTypes, 3))
	fmt.Println(suggest.Closest("Banana", elementTypes, 3))
	// Output:
	// [ApplicationComponent ApplicationService ApplicationInterface]
	// [ApplicationComponent]
	// [Capability]
	// [BusinessProcess]
	// []
}

func ExampleClosestCandidates() {
	statuses := []suggest.Candidate{
		{Name: "todo", Also: []string{"open", "backlog"}},
		{Name: "in_progress", Also: []string{"doing", "wip"}},
		{Name: "done", Also: []string{"completed", "closed"}},
	}
	fmt.Println(suggest.ClosestCandidates("Completed", statuses, 3))
	fmt.Println(suggest.ClosestCandidates("InProgress", statuses, 3))
	// Output:
	// [done]
	// [in_progress]
}
