package cycle

func useField(a A) int { return a.N + Generated() }
