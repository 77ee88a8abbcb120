"""``python -m groundplan ...``: the same command line as ``groundplan ...``."""

from groundplan.cli.main import main

if __name__ == "__main__":
    main()
