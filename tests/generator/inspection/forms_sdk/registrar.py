def register(app):
    @app.tool()  # -> registered
    def registered(x: int) -> int:
        """Defined inside a registration function."""
        return x
