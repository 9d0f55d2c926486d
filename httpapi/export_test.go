package httpapi

// NotYetPatterns exposes the not-yet-implemented patterns to the external tests.
var NotYetPatterns = notYet
