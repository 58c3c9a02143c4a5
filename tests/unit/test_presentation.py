"""What the editor is shown, without a server: token JSON, hovers, diagnostic words, levels."""

from qualm.engine.placement import PlacedToken
from qualm.levels import LEVEL_WORDS, LEVELS, ensemble_words, level_of
from qualm.lsp.presentation import diagnostic_message, token_hover, token_json
from qualm.trace import Alternative

TOKEN = PlacedToken(
    start=40, end=44, text=" max", entropy=1.234, prob=0.41, level="medium",
    alternatives=(Alternative(1, " max", 0.41), Alternative(2, " min", 0.3), Alternative(3, " sum", 0.1), Alternative(4, " len", 0.05), Alternative(5, "|", 0.01)),
    origin="completion",
)


def test_the_client_gets_text_offsets_and_level_only():
    assert token_json(TOKEN, 30) == {"text": " max", "start": 10, "end": 14, "level": "medium"}


def test_the_hover_shows_as_many_alternatives_as_the_setting_asks():
    three = token_hover(TOKEN, 3)
    assert "the model's top 3" in three and "`·min`" not in three  # a word keeps its space as text
    assert three.count("% |") == 3 and "**` max`**" in three and "41.0%" in three and "from completion" in three
    five = token_hover(TOKEN, 5)
    assert "the model's top 5" in five and "\\|" in five  # a pipe is escaped in the table
    assert "the model's top 5" in token_hover(TOKEN, 20)  # never more rows than the model gave


def test_diagnostic_words_name_the_level_and_the_rivals():
    msg = diagnostic_message(TOKEN)
    assert msg.startswith("'max': the model was uncertain here (1.23 nats, chose it with p = 0.41)")
    assert msg.endswith("it also considered ' min' 30%, ' sum' 10%, ' len' 5%")  # three rivals at most, the chosen one left out


def test_levels_from_thresholds_and_their_words():
    thresholds = (0.5, 1.0, 2.0)
    assert [level_of(h, thresholds) for h in (0.0, 0.5, 0.99, 1.0, 2.0, 9.0)] == ["confident", "low", "low", "medium", "high", "high"]
    assert set(LEVEL_WORDS) == set(LEVELS)
    assert [ensemble_words(x) for x in (None, 0.1, 0.3, 0.6, 0.9)] == ["not calibrated", "confident", "fairly sure", "uncertain", "very uncertain"]


def test_a_scored_token_says_whether_the_model_would_have_written_it():
    from dataclasses import replace

    scored = replace(TOKEN, origin="score", text=" min", prob=0.3)  # the file has " min"; the model preferred " max"
    hover = token_hover(scored, 5)
    assert "the model was uncertain here" in hover and "from score" in hover
    assert "surprisal **1.20** nats" in hover and "would have written ` max` (41%)" in hover
    assert "gave the token in the file p = 0.30" in diagnostic_message(scored)
    own = replace(TOKEN, origin="score")  # the file has the model's own first choice
    assert "the model would have written it too" in token_hover(own, 5)
    assert "surprisal" not in token_hover(TOKEN, 5)  # a completion: the model wrote it
