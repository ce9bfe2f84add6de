package gen

// Messages the server owns whole. A message field whose every field the
// server owns (a resource that is entirely OUTPUT_ONLY, a status block)
// leaves the schema with them; a key naming it is still refused as the
// server's, with the reason, at any depth, and not as a bare unknown field.

// ownWholeMessages records, among mm's owned fields, each agent field whose
// message has no field the agent sets and some the server owns.
func ownWholeMessages(mm *messageModel) {
	for _, f := range mm.fields {
		c := f.child
		if c == nil || f.exposed() || (f.mode != modeAgent && f.mode != modeEnumAlias) || len(c.owned) == 0 || c.serverFilled {
			continue
		}
		mm.owned = append(mm.owned, ownedField{name: f.agentName, why: wholeWhy(c)})
	}
}

// wholeWhy says why the server owns every field of c: OUTPUT_ONLY when
// each of its owned fields is.
func wholeWhy(c *messageModel) string {
	const outputOnly = "OUTPUT_ONLY: the server sets it"
	for _, o := range c.owned {
		if o.why != outputOnly && o.why != outputOnlyWhole {
			return "the server sets every field of " + string(c.proto.Desc.Name())
		}
	}
	return outputOnlyWhole
}

const outputOnlyWhole = "OUTPUT_ONLY: the server sets every field of it"
