"""One module per problem family: the factories behind the registered ids."""
