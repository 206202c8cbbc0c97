"""The red-team suite: real graded submissions that attack the grader, one batch per module."""
