-- sample.sql: the sample database of the default deployment (make builds build/conf/sample.db).
CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);
INSERT INTO notes (title, body) VALUES ('hello', 'the sample database of mcph');
