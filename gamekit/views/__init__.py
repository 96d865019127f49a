"""Views: plots, graph and tree drawings, boards and widgets (thin views over pure models)."""
