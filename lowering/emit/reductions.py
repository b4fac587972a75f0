"""(family in progress)"""
