package impl

// MaxListed bounds valid_values and MaxDidYouMean did_you_mean in one error.
const (
	MaxListed     = 25
	MaxDidYouMean = 3
)

// BoundList returns at most maxListed names.
func BoundList(names []string) []string {
	if len(names) > MaxListed {
		return names[:MaxListed:MaxListed]
	}
	return names
}

// scratchKeep bounds the slabs and error lists a released scratch keeps,
// so the pool holds what typical arguments need and no more; a larger
// payload's storage is made for it and left to the collector.
const scratchKeep = 256
