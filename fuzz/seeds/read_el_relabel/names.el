alice bob
bob 18446744073709551615
# a comment
carol alice
