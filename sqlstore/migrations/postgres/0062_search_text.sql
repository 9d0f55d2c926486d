-- An interactive message's visible text (chat.InteractiveText: the titles, labels and button
-- texts of data.interactiveData), written at send and import, so that searchKey finds the
-- message by what its readers see rather than by its JSON's keys and ids. '' for every other
-- message, and for interactive messages stored before this migration (searchKey finds
-- those by data.text only). interactiveData cannot be edited, so it is never rewritten.
ALTER TABLE messages ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
