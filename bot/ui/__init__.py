"""Pure rendering: state in, embeds and components out. No database access, no engine mutations."""
