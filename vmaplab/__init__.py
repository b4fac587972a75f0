"""vmaplab's command line (``vmaplab`` / ``python -m vmaplab``): the outermost layer, above
the frontend API and the lowering backend. See vmaplab/cli.py and docs/testbed.md."""
