// Package suggest finds the names an agent most plausibly meant when it sends a wrong enum value,
// field name or tool name, so that errors can carry a did-you-mean list.
//
// Agents rarely misspell at random: they abbreviate ("AppComponent", "desc", "svc"), change case
// and separators ("application_component", "parentId"), paste enum constants
// ("ELEMENT_TYPE_NODE"), pluralise ("Capabilities"), drop or add a word ("Component",
// "ApplicationComponentType"), swap CRUD verbs ("addElement") and make ordinary typos
// ("Realisation", "Servng"). Each candidate spelling is scored in (0, 1] by the best of these rules:
//
//   - 1.0 when input and candidate are equal after Normalize (case folded, separators dropped);
//     0.97 when they differ only by a plural ending. Either result is decisive: only such
//     candidates are returned, since the intent is then unambiguous.
//   - Word alignment: both are split into words (Tokens) and paired greedily, best pair first.
//     A pair scores 1.0 when equal, 0.95 as plurals, 0.85 as dictionary synonyms (irregular
//     abbreviations such as biz/business, and verbs such as add/create, remove/delete), 0.85 when
//     they share a stem of at least four letters once an inflection is stripped
//     (serves/serving, realizes/realization), 0.8 when the input word is a prefix of the candidate
//     word (app/application), 0.75 the other way round (organization/org), 0.7 when the input word
//     is written from the candidate word's letters in order (svc/service, qty/quantity), and
//     0.95 - 0.5*d/len for a Damerau-Levenshtein distance d within the allowance of the shorter word.
//     The word score is a weighted Dice coefficient: the matched weight of both sides over the total
//     weight of both sides, where filler words ("of", "in") weigh 0.3 and "id" weighs 0.5; words
//     matched out of order multiply it by 0.9.
//   - Camel humps: the glued input read as prefixes of the candidate's words in order, as IDEs do
//     ("appcomp", "po" for PurchaseOrder): 0.8 times the weight share of the words used plus 0.1
//     times the length ratio.
//   - Containment: a glued input holding the whole candidate (of four letters or more) scores
//     0.6 plus 0.3 times the length ratio.
//   - Typos over the whole name: 1 - d/len for the Damerau-Levenshtein (optimal string alignment)
//     distance d of the normalised strings, allowed up to 1 edit for 4-7 letters, 2 for 8-11, 3 for
//     12-15 and len/5 beyond.
//
// Candidates scoring below Threshold are noise and are dropped, so nonsense ("xyz", "Banana")
// gets no suggestion at all. Results are ordered by score; ties keep the candidates' order, so a
// caller lists its vocabulary in the order it prefers. Stripping an enum's shared constant prefix
// is the caller's job; "APPLICATION_COMPONENT" already matches ApplicationComponent exactly.
// Domain synonyms (open/todo, vendor/supplier) belong in Candidate.Also.
//
// Index prepares a vocabulary once for repeated lookups; Closest and ClosestCandidates build one
// per call, which is cheap enough for a hundred candidates on an error path.
package suggest
