package impl

// Enrichment inside the items of a repeated field or the values of a map:
// each item is filled on its own, and what names a field names it by its
// whole agent path (elements[2].id).

// EnterKey descends into the value of map entry key. For use by generated
// code.
func (c *Call) EnterKey(key string) { c.refPath = append(c.refPath, pathSeg{key: key, item: true}) }

// itemScope is the path of the innermost list item or map value enrichment
// is in (elements[2]) and the path of its list or map (elements); false
// when enrichment is in no item.
func (c *Call) itemScope() (item, list string, ok bool) {
	last := -1
	for i, s := range c.refPath {
		if s.isIdx || s.item {
			last = i
		}
	}
	if last < 0 {
		return "", "", false
	}
	var b []byte
	for _, s := range c.refPath[:last] {
		b = appendPathSeg(b, s)
	}
	list = string(b)
	return string(appendPathSeg(b, c.refPath[last])), list, true
}

// ItemScopedID is the REQUEST_SCOPED ID of a field of an item that carries
// its own idempotency key (an item_key field): the same for the same
// tenant, tool, list and item key, whichever call carries the item, so a
// batch retried with another call key, or none, gives each item the ID it
// got first. Without an item key it is RequestScopedID. For use by
// generated code.
func (c *Call) ItemScopedID(key string) string {
	_, list, ok := c.itemScope()
	if key == "" || !ok {
		return c.RequestScopedID()
	}
	rc, _ := c.requestContext()
	secret := c.IDSecret
	if secret == nil {
		secret = processIDSecret()
	}
	u := keyedUUID(secret, itemScopedLabel, rc.TenantID, c.Tool, list, key)
	return c.uuidText(&u)
}
