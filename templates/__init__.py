# Jinja2 templates shipped inside the ham package as ham.templates (see setup.cfg).
