package impl

// Enrichment inside the items of a repeated field or the values of a map:
// each item is filled on its own, and what names a field names it by its
// whole agent path (elements[2].id).

// EnterKey descends into the value of map entry key. For use by generated
// code.
func (c *Call) EnterKey(key string) { c.enter(pathSeg{key: key, item: true}) }

// ItemScopedID is the REQUEST_SCOPED ID of a field of an item that carries
// its own idempotency key (an item_key field): the same for the same
// tenant, principal, tool, list and item key (the item key's scope, as a
// call key's), whichever call carries the item, so a batch retried with
// another call key, or none, gives each item the ID it got first, and
// another principal of the tenant who reuses the item key gets an ID of
// its own rather than a conflict with the first principal's item. Without an item key, or outside a list's item (the message as
// a map's value or a singular field, where no key is checked unique), it
// is RequestScopedID. For use by generated code.
func (c *Call) ItemScopedID(key string) string {
	_, list, ok := itemScope(c.refPath)
	if key == "" || !ok || !c.refPath[len(c.refPath)-1].isIdx {
		return c.RequestScopedID()
	}
	rc, _ := c.requestContext()
	u := keyedUUID(c.idSecret(), itemScopedLabel, rc.TenantID, rc.PrincipalID, c.Tool, list, key)
	return c.uuidText(&u)
}
