"""What a typed line means: ``registry.py`` dispatches; one module per command family."""
