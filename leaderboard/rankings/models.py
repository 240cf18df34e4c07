"""Rankings are queries over ``submissions.Result``; this app has no tables."""
