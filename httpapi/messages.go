package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/natter-chat/natter/chat"
)

type sendMessageRequest struct {
	Receiver     string          `json:"receiver"`
	ReceiverType string          `json:"receiverType"`
	Category     string          `json:"category"`
	Type         string          `json:"type"`
	Data         json.RawMessage `json:"data"`
	Tags         []string        `json:"tags"`
	MUID         string          `json:"muid"`
	Multiple     json.RawMessage `json:"multipleReceivers"`
}

func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req sendMessageRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if len(req.Multiple) > 0 && string(req.Multiple) != "null" {
		return chat.Errorf(chat.CodeNotImplemented, "multipleReceivers is not implemented in natter yet.")
	}
	m, err := s.svc.SendMessage(r.Context(), p, chat.MessageSend{Receiver: req.Receiver,
		ReceiverType: req.ReceiverType, Category: req.Category, Type: req.Type, Data: req.Data, Tags: req.Tags, MUID: req.MUID})
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	s.publishMessage(r, m)
	return nil
}

// sendBotMessage is POST /bots/{uid}/messages: a message from the bot, which in natter is
// any user of the app the server-side app sends as (the hosted service's bots are users too).
func (s *Server) sendBotMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	return s.sendMessage(w, r, p.ActingAs(r.PathValue("uid")))
}

func (s *Server) getMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	m, err := s.svc.Message(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	return nil
}

func (s *Server) deleteMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	permanent, err := permanentFlag(r)
	if err != nil {
		return err
	}
	m, err := s.svc.DeleteMessage(r.Context(), p, r.PathValue("id"), permanent)
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	s.publishMessage(r, m)
	return nil
}

func (s *Server) editMessage(w http.ResponseWriter, r *http.Request, p chat.Principal) error {
	var req struct {
		Data json.RawMessage `json:"data"`
		Tags *[]string       `json:"tags"`
	}
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	m, err := s.svc.EditMessage(r.Context(), p, r.PathValue("id"), chat.MessageEdit{Data: req.Data, Tags: req.Tags})
	if err != nil {
		return err
	}
	writeMessage(w, r, m)
	s.publishMessage(r, m)
	return nil
}
