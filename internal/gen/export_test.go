package gen

// ProtogenFormats is cfg with the Go files left to protogen to format (the
// reference of formatGo).
func ProtogenFormats(cfg Config) Config {
	cfg.protogenFormats = true
	return cfg
}
