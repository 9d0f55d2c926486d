// Package archtest holds no code: its tests keep the repository's house rules true of the
// code. TestDocsNameWhatExists fails when ARCHITECTURE.md, the README or a page under docs/
// or bench/ names a repository path, a link target or a Go identifier (`chat.Service`,
// `chat.Service.Subscribe`) that is not there; TestFloorsImportWhatTheyMay fails when a
// package imports a natter package its floor may not (ARCHITECTURE.md, "Floors").
package archtest
