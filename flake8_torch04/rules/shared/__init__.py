"""What several rules share: the rename tables (:mod:`.tables`) and small edits of
calls (:mod:`.calls`).  Each module of ``rules/`` itself is one rule."""
