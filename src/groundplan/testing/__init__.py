"""Test fakes and harnesses, importable by the tests and by benchmark scripts (never by the
product code): a local OpenAI-compatible server with fault injection (``FakeOpenAI``) and
the web console under uvicorn with Selenium helpers (``groundplan.testing.browser``; needs
the ``web`` extra and selenium)."""

from groundplan.testing.fake_openai import CONTEXT_ERROR, FakeOpenAI, grammar_answer

__all__ = ["FakeOpenAI", "grammar_answer", "CONTEXT_ERROR"]
