"""The application layer: every use case of the service, shared by the gRPC and REST transports."""
