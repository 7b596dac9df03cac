package io.github.ham.mapreduce.common.protocol;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.apache.hadoop.security.Credentials;

/**
 * The job's credentials as they travel to the runners: serialized, then encrypted and
 * authenticated (AES-GCM) with a key derived from the job token's password, which the driver
 * and the runners hold and which never crosses the network. The umbilical itself is
 * authenticated but not encrypted (Hadoop IPC's "authentication" protection), so secrets need
 * this of their own.
 */
public final class CredentialsSeal {
  private static final int IV_BYTES = 12;
  private static final int TAG_BITS = 128;

  private CredentialsSeal() {
  }

  private static SecretKeySpec key(byte[] tokenPassword) throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(tokenPassword, "HmacSHA256"));
    return new SecretKeySpec(mac.doFinal("ham job credentials".getBytes(StandardCharsets.UTF_8)),
        "AES");
  }

  public static byte[] seal(Credentials credentials, byte[] tokenPassword) throws IOException {
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    credentials.writeTokenStorageToStream(new DataOutputStream(plain));
    try {
      byte[] iv = new byte[IV_BYTES];
      new SecureRandom().nextBytes(iv);
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.ENCRYPT_MODE, key(tokenPassword), new GCMParameterSpec(TAG_BITS, iv));
      byte[] sealed = cipher.doFinal(plain.toByteArray());
      byte[] out = Arrays.copyOf(iv, IV_BYTES + sealed.length);
      System.arraycopy(sealed, 0, out, IV_BYTES, sealed.length);
      return out;
    } catch (GeneralSecurityException e) {
      throw new IOException("Cannot seal the job's credentials", e);
    }
  }

  public static Credentials open(byte[] sealed, byte[] tokenPassword) throws IOException {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(Cipher.DECRYPT_MODE, key(tokenPassword),
          new GCMParameterSpec(TAG_BITS, sealed, 0, IV_BYTES));
      byte[] plain = cipher.doFinal(sealed, IV_BYTES, sealed.length - IV_BYTES);
      Credentials credentials = new Credentials();
      credentials.readTokenStorageStream(new DataInputStream(new ByteArrayInputStream(plain)));
      return credentials;
    } catch (GeneralSecurityException e) {
      throw new IOException("The job's credentials do not open with this runner's job token", e);
    }
  }
}
