"""``python -m groundplan.llm._serve_llama ARGS``: llama-cpp-python's OpenAI-compatible server
(``python -m llama_cpp.server ARGS``) with the settings groundplan's embedded backend uses
(groundplan.llm._llamacpp): a passive OpenMP wait policy, and weight repacking (extra buffer
types) off only where it is unsafe: a CPU that reports AMX which the kernel has not enabled
crashes the server with a segmentation fault on its first chat completion."""

from __future__ import annotations

from groundplan.llm._llamacpp import import_llama_cpp


def main() -> None:
    import_llama_cpp()
    from llama_cpp.server.__main__ import main as serve

    serve()


if __name__ == "__main__":
    main()
