"""Pyramid solitaire (rules/pyramid.md): engine, notation, solver, computer player, renderer."""
