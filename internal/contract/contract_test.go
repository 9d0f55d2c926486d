package contract_test

import (
	"path/filepath"
	"testing"

	"github.com/natter-chat/natter/internal/contract"
)

func TestOpenAPISpecLoads(t *testing.T) {
	s, err := contract.Load(filepath.Join("..", "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Operations()) == 0 {
		t.Fatal("no operations")
	}
	t.Log(s.Operations())
}
