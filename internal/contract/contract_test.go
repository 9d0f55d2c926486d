package contract_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/natter-chat/natter/internal/contract"
)

// apiSpec loads api/openapi.yaml once for the package's tests: loading validates the whole
// document, which takes seconds.
var apiSpec = sync.OnceValues(func() (*contract.Spec, error) {
	return contract.Load(filepath.Join("..", "..", "api", "openapi.yaml"))
})

func TestOpenAPISpecLoads(t *testing.T) {
	s, err := apiSpec()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Operations()) == 0 {
		t.Fatal("no operations")
	}
	t.Log(s.Operations())
}
