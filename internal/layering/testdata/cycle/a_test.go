package cycle

import "testing"

func TestUsesC(t *testing.T) { _ = useField(A{}) + B }
