package chat

import (
	"context"
	"errors"
	"strings"
)

// OperatorPrincipal is the principal of an operator acting on an app from the command line
// (natter apps keys create): the app's full access with no key, since whoever can open the
// database needs none. The HTTP layer never builds one.
func (s *Service) OperatorPrincipal(ctx context.Context, appID string) (Principal, error) {
	app, err := s.store.App(ctx, strings.ToLower(appID))
	if errors.Is(err, ErrNotFound) {
		return Principal{}, Errorf(CodeInvalidAppID, "The app %q does not exist.", appID)
	}
	if err != nil {
		return Principal{}, internal("look up app", err)
	}
	return Principal{App: app, Scope: ScopeFullAccess}, nil
}
