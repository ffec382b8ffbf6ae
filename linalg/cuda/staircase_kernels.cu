// Placeholder: implemented with issue 4.
