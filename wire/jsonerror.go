package wire

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/natter-chat/natter/chat"
)

// JSONError is the refusal for a JSON body or item that does not decode: the field and the
// type it must have when the value was of the wrong type, else a body that is not JSON.
func JSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return chat.Errorf(chat.CodeBadRequest, "The request body must be a JSON object.")
		}
		return chat.InvalidField(field, fmt.Sprintf("The %s field must be of type %s.", field, jsonType(te.Type.Kind().String())))
	}
	return &chat.Error{Code: chat.CodeBadRequest, Message: "The request body is not valid JSON.", Err: err}
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "bool":
		return "boolean"
	case "map", "struct":
		return "object"
	case "int", "int64", "float64":
		return "number"
	}
	return kind
}
