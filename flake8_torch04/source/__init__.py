"""Reading a document: a file's bytes as text and back (:mod:`.document`),
notebooks as one Python text and back (:mod:`.notebook`), newlines and the one
parse of a text (:mod:`.parse`), character columns, segments and edits
(:mod:`.text`), and the light records the whole package uses (:mod:`.record`).

Nothing here knows about rules: every other package may import this one."""
