/*
 * DynamoDB Local bound to 127.0.0.1 only. The engine has no option for the
 * interface it listens on (its Jetty server is built with a port alone, so
 * it listens on every interface); this launcher builds the engine from the
 * same command line, sets the host of each connector to the loopback
 * address before the server starts, then runs it as ServerRunner does.
 * Compiled and run by local/dynamodb-local.ts; it takes DynamoDB Local's
 * own arguments.
 */
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

public final class LoopbackDynamoDBLocal {
  public static final String HOST = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    if (proxy == null) {
      System.exit(1);
    }
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    int bound = 0;
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof ServerConnector) {
        ((ServerConnector) connector).setHost(HOST);
        bound++;
      }
    }
    if (bound == 0) {
      System.err.println("LoopbackDynamoDBLocal: no connector to bind to " + HOST + "; refusing to listen on every interface");
      System.exit(1);
    }
    proxy.start();
    System.out.println("DynamoDB Local listening on " + HOST + " only");
    proxy.join();
  }
}
