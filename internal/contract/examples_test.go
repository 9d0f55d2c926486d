package contract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natter-chat/natter/internal/contract"
)

// TestExamplesMatchSchemas validates every example in api/openapi.yaml against its schema.
func TestExamplesMatchSchemas(t *testing.T) {
	s, err := apiSpec()
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.CheckExamples()
	if err != nil {
		t.Error(err)
	}
	// Request bodies of five operations, and the user, message, reaction list and error
	// responses: fewer means the walk lost some.
	if n < 9 {
		t.Errorf("checked %d examples, want at least 9", n)
	}
	t.Logf("checked %d examples", n)
}

// exampleDoc holds one good and one bad example of each kind CheckExamples checks. Load
// insists on the Error4xx/501 schemas.
const exampleDoc = `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /things/{id}:
    parameters:
      - name: id
        in: path
        required: true
        schema: {type: string, pattern: '^[0-9]+$'}
        examples:
          goodPathParam: {value: "12"}
          badPathParam: {value: "twelve"}
    post:
      parameters:
        - name: limit
          in: query
          schema: {type: integer, maximum: 10}
          example: 11
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
            examples:
              goodBody: {value: {name: a}}
              badBody: {value: {name: a, colour: red}}
      responses:
        '200':
          $ref: '#/components/responses/Thing'
        '400':
          description: inline
          content:
            application/json:
              schema: {type: object, required: [error]}
              example: {nope: 1}
components:
  responses:
    Thing:
      description: a thing
      headers:
        X-Count:
          schema: {type: integer}
          example: many
      content:
        application/json:
          schema: {$ref: '#/components/schemas/Thing'}
          example: {name: 7}
  schemas:
    Thing:
      type: object
      additionalProperties: false
      required: [name]
      properties:
        name:
          type: string
          examples: [fine, 3]
      examples:
        - {name: b}
    Error401: {type: object}
    Error404: {type: object}
    Error405: {type: object}
    Error413: {type: object}
    Error429: {type: object}
    Error501: {type: object}
    Error503: {type: object}
`

// TestCheckExamplesCatchesMismatch proves that an example that does not match its schema
// fails, wherever it is, and that a matching one passes.
func TestCheckExamplesCatchesMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, []byte(exampleDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := contract.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.CheckExamples()
	if err == nil {
		t.Fatal("CheckExamples passed a document with bad examples")
	}
	msg := err.Error()
	for _, bad := range []string{
		"paths./things/{id}.parameters.id.examples.badPathParam:",
		"paths./things/{id}.post.parameters.limit.example:",
		"paths./things/{id}.post.requestBody.content.application/json.examples.badBody:",
		".responses.400.content.application/json.example:",
		"components.responses.Thing.content.application/json.example:",
		"components.responses.Thing.headers.X-Count.example:",
		"components.schemas.Thing.properties.name.examples[1]:",
	} {
		if !strings.Contains(msg, bad) {
			t.Errorf("no complaint about %s in:\n%s", bad, msg)
		}
	}
	for _, good := range []string{"goodPathParam", "goodBody", "examples[0]:"} {
		if strings.Contains(msg, good) {
			t.Errorf("a complaint about the good example %s in:\n%s", good, msg)
		}
	}
	if want := 11; n != want {
		t.Errorf("checked %d examples, want %d", n, want)
	}
}
