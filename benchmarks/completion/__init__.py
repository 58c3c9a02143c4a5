"""The editor's completions and rewrites: how good they are and how long they take."""
