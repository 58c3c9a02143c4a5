"""The language server: pygls wiring (server.py, app.py), the protocol, the model worker, and one
module per feature (features/)."""
