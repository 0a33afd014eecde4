"""Pyramid solitaire (docs/rules/pyramid.md).

``cards``     the deck, card codes and the pyramid's spots
``rules``     one player's match (a standard game, or a tournament of six deals)
``match``     the hosted table around it: one match per seat, played at once; SAVE,
              EXIT, NEW and RESIGN (the one check of them, ``check_close``), which
              commands each mode has (``check_command``); its notation, JSON, view,
              render and words
``notation``  action text <-> Action, the match's JSON codec
``render``    ``view_for`` / ``render``: one match as a seat may see it
``ai``        the computer player (it never reads the face-down Pack)
``solver``    the search that sees every card (HINT's helper, the verdict after a game)
"""
