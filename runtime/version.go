package runtime

// Version is the runtime's semantic version.
const Version = "0.1.0"

// IsAtLeastVersion0_1_0 is referenced by generated code to assert at compile
// time that the linked runtime is new enough. Never removed.
const IsAtLeastVersion0_1_0 = true
