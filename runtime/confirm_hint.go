package runtime

// confirmWords are the arguments agents send to confirm a write on their
// own (confirm: true, force: true, ...). No tool takes them: a write the
// user must confirm is confirmed by the user, by proposal or elicitation.
var confirmWords = map[string]bool{"confirm": true, "confirmed": true, "force": true, "yes": true}
